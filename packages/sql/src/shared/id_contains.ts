/**
 * listRuns `idContains` on Postgres and MySQL: `id LIKE '%…%' ESCAPE '!'` with the text's own
 * wildcards escaped, so it matches literally. `!` rather than the default backslash: MySQL
 * also treats a backslash as an escape inside string literals (unless NO_BACKSLASH_ESCAPES),
 * which would make the pattern depend on the server's sql_mode. Case-sensitive because the id
 * column compares bytes on both (Postgres `COLLATE "C"`, MySQL `VARBINARY`); a byte substring of
 * UTF-8 is a code point substring, so no character is half matched.
 */
export const LIKE_ESCAPE = '!'

/** The LIKE pattern matching any text that contains `text` literally. */
export function likeContainsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (char) => LIKE_ESCAPE + char)}%`
}

/** The condition on column `column` given the bound pattern placeholder. */
export function idContainsSql(column: string, placeholder: string): string {
  return `${column} LIKE ${placeholder} ESCAPE '${LIKE_ESCAPE}'`
}
