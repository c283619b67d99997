/**
 * `@cairn/dashboard/views`: how the dashboard API renders runs, steps, step logs and payloads
 * as JSON, without the HTTP server — for tools (the `cairn` command) whose JSON must be the API's.
 */
export { runSummary, stepView, type RunSummary, type StepView } from './api/run_views.ts'
export { stepLogView, type StepLogView } from './api/step_log_views.ts'
export { toJsonValue } from './api/json_value.ts'
