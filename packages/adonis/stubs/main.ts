/**
 * Where this package's stubs live, for `codemods.makeUsingStub(stubsRoot, …)`. `node ace
 * configure` reads it from the package's main exports; the make:* commands import it.
 */
export const stubsRoot = import.meta.dirname
