/**
 * Step duration buckets, in seconds: 1 ms to 10 min, about three per decade (1-2.5-5), so a
 * quick in-process step and a slow external call both land in a bucket that says something.
 */
export const STEP_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300, 600,
]

/**
 * Schedule lag buckets, in seconds: 10 ms to 1 h. A healthy start lands within a second or
 * two of its due time (jitter aside); minutes or hours mean no engine was driving.
 */
export const SCHEDULE_LAG_BUCKETS: readonly number[] = [
  0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600,
]
