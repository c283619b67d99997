// A run's API path. A run id `.` or `..` would be resolved away by every URL parser, so ids made
// of one or two dots after any `!`s travel as `!` + id; the server undoes it
// (src/api/run_id_param.ts). Every other id goes as itself, percent-encoded.

/** `runs/<id>`, safe for any run id. */
export function runPath(runId) {
  return `runs/${encodeURIComponent(idSegment(runId))}`
}

/** `schedules/<id>`: schedule ids travel in paths like run ids. */
export function schedulePath(scheduleId) {
  return `schedules/${encodeURIComponent(idSegment(scheduleId))}`
}

function idSegment(id) {
  return /^!*\.{1,2}$/.test(id) ? `!${id}` : id
}
