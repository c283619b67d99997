// Types of run_path.js for the tests that check the console and the server agree (not served:
// the console serves only the file types it lists).
export declare function runPath(runId: string): string
export declare function schedulePath(scheduleId: string): string
