/**
 * What a name refers to, from ESLint's scope analysis: a global (`Date`, `crypto`), a binding
 * imported from a module, or a value of the file's own (a shadowed `Date`, a local `Math`).
 * No type information needed: `const Date = …` is local whatever its type.
 */

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('@typescript-eslint/utils').TSESTree.Identifier} Identifier */
/** @typedef {import('@typescript-eslint/utils').TSESLint.Scope.Scope} Scope */
/** @typedef {import('@typescript-eslint/utils').TSESLint.Scope.Variable} Variable */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */

/**
 * @typedef {{ kind: 'global' }
 *   | { kind: 'import', module: string, imported: string | null }
 *   | { kind: 'local' }} Binding
 * `imported` is the export's name, or null for the module object itself (a default or
 * namespace import: of a Node built-in, both are the module's exports).
 */

/**
 * @param {SourceCode} sourceCode
 * @param {Identifier} identifier
 * @returns {Binding}
 */
export function bindingOf(sourceCode, identifier) {
  const variable = findVariable(sourceCode.getScope(identifier), identifier.name)
  // Undeclared, or declared by the environment only (a configured global, a TypeScript lib).
  if (variable === null || (variable.scope.type === 'global' && variable.defs.length === 0)) {
    return { kind: 'global' }
  }
  const definition = variable.defs[0]
  if (definition?.type !== 'ImportBinding') return { kind: 'local' }
  const declaration = definition.parent
  // `import fs = require('fs')` is rare enough in ESM workflow code to be left out.
  if (declaration.type !== 'ImportDeclaration' || declaration.importKind === 'type') {
    return { kind: 'local' }
  }
  const specifier = definition.node
  const imported =
    specifier.type === 'ImportSpecifier'
      ? specifier.imported.type === 'Identifier'
        ? specifier.imported.name
        : String(specifier.imported.value)
      : null
  return { kind: 'import', module: moduleName(declaration.source.value), imported }
}

/**
 * `node:fs` and `fs` are one module.
 * @param {string} specifier
 */
export function moduleName(specifier) {
  return specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier
}

/**
 * @param {Scope} scope
 * @param {string} name
 * @returns {Variable | null}
 */
function findVariable(scope, name) {
  for (let current = /** @type {Scope | null} */ (scope); current; current = current.upper) {
    const variable = current.set.get(name)
    if (variable !== undefined) return variable
  }
  return null
}

/**
 * The variable a function is bound to: `function helper() {}`, `const helper = () => …`
 * (through `as` / `satisfies`). Null for a function passed along anonymously.
 * @param {SourceCode} sourceCode
 * @param {Node} fn the function, or its outermost wrapper
 * @returns {Variable | null}
 */
export function functionVariable(sourceCode, fn) {
  if (fn.type === 'FunctionDeclaration') return sourceCode.getDeclaredVariables(fn)[0] ?? null
  const parent = fn.parent
  if (parent?.type !== 'VariableDeclarator' || parent.init !== fn) return null
  if (parent.id.type !== 'Identifier') return null
  return sourceCode.getDeclaredVariables(parent)[0] ?? null
}

/**
 * Where the function bound to `variable` is used: every reference that reads it.
 * @param {Variable} variable
 * @returns {Identifier[]}
 */
export function readsOf(variable) {
  return variable.references
    .filter((reference) => reference.isRead() && !reference.init)
    .map((reference) => /** @type {Identifier} */ (reference.identifier))
}
