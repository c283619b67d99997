/** @cairn/cli: the `cairn` command (being built; see issue 6). */
export {}
