/**
 * @cairn/adonis — Cairn durable workflows in an AdonisJS 7 app. See docs/adonis.md.
 *
 * `config/durable.ts` uses `defineConfig` and `stores`; workflows extend `BaseWorkflow` in
 * `app/workflows`; steps extend `BaseStep` (or default-export a `defineStep`) in `app/steps`;
 * `indexWorkflows()` / `indexSteps()` are adonisrc init hooks for build-time discovery; the provider (`@cairn/adonis/durable_provider`) binds the engine and
 * registers them; `@cairn/adonis/services/main` is the booted engine.
 */
export { defineConfig, validateConfig } from './define_config.ts'
export { stores, type LucidStoreOptions } from './stores.ts'
export {
  transports,
  type TransportPair,
  type TransportProvider,
  type BullmqTransportConfig,
  type DbTransportConfig,
} from './transports.ts'
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
export {
  BaseStep,
  type StepDeclaration,
  type StepClass,
  type StepInput,
  type StepOutput,
} from './base_step.ts'
export { defineStep } from '@cairn/core'
export { discoverSteps, type DiscoveredStep } from './step_discovery.ts'
export { indexWorkflows, indexSteps, type IndexHookOptions } from './index_hooks.ts'
export type {
  DurableConfig,
  DurableOverrides,
  ResolvedDurableConfig,
  StoreProvider,
} from './types.ts'
// What generated workflow files import; the package's own `node ace configure` hook.
export type { WorkflowContext, StepContext } from '@cairn/core'
export { configure } from '../configure.ts'
export { stubsRoot } from '../stubs/main.ts'
