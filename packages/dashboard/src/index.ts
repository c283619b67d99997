/** @cairn/dashboard: the operations dashboard as a fetch handler (being built; see issue 6). */
export {}
