/**
 * @cairn/dashboard — the operations dashboard for a Cairn engine.
 *
 * `createDashboard({ engine, auth })` is one fetch handler: the JSON API over the engine's
 * read and action methods, live updates as server-sent events, the console's files and its
 * login. Mount it under any base path in any fetch runtime, or serve it from Node with
 * `serveDashboard` / `toNodeListener`. docs/dashboard.md has the API and the security model.
 */
export { createDashboard, type Dashboard } from './dashboard.ts'
export {
  serveDashboard,
  toNodeListener,
  type NodeListener,
  type ServedDashboard,
} from './http/node_adapter.ts'
export type { DashboardOptions, DashboardAuth, DashboardStreamOptions } from './options.ts'
export { runSummary, type RunSummary, type StepView } from './api/run_views.ts'
export type { RunDetail } from './api/run_detail.ts'
export type { Wait } from './api/waits.ts'
export { DashboardCodes } from './http/http_error.ts'
export type { MetricsExposition } from './http/metrics_route.ts'
