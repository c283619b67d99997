/**
 * @cairn/adonis — Cairn durable workflows in an AdonisJS 7 app. See docs/adonis.md.
 *
 * `config/durable.ts` uses `defineConfig` and `stores`; workflows extend `BaseWorkflow` in
 * `app/workflows`; the provider (`@cairn/adonis/durable_provider`) binds the engine and
 * registers them; `@cairn/adonis/services/main` is the booted engine.
 */
export { defineConfig, validateConfig } from './define_config.ts'
export { stores, type LucidStoreOptions } from './stores.ts'
export {
  BaseWorkflow,
  type WorkflowDefinition,
  type WorkflowClass,
  type WorkflowInput,
  type WorkflowOutput,
  type DispatchedRun,
  type StartAndWaitOptions,
} from './base_workflow.ts'
export { discoverWorkflows, type DiscoveredWorkflow } from './discovery.ts'
export type {
  DurableConfig,
  DurableOverrides,
  ResolvedDurableConfig,
  StoreProvider,
} from './types.ts'
