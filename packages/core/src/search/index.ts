export {
  checkAttributeName,
  checkAttributeValue,
  checkUpsert,
  MAX_ATTRIBUTE_NAME_LENGTH,
  MAX_ATTRIBUTE_TEXT_LENGTH,
  MAX_ATTRIBUTES_PER_UPSERT,
} from './attribute_values.ts'
export {
  parseSearchFilter,
  termMatches,
  MAX_FILTER_TERMS,
  type SearchTerm,
} from './attribute_filter.ts'
export { fromTypedValue, toTypedValue, type AttributeType, type TypedValue } from './typed_value.ts'
export { checkRunIdList, MAX_ATTRIBUTE_RUN_IDS } from './run_id_list.ts'
export { checkWithSchema, isStandardSchema, type SchemaIssueDetail } from './schema_check.ts'
