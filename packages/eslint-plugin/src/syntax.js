/**
 * Readings of the syntax tree every part of the rule needs: an expression with its
 * TypeScript-only wrappers peeled off, the fixed name of a member or a key, and the position a
 * function holds in the code around it.
 */

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('@typescript-eslint/utils').TSESTree.MemberExpression} MemberExpression */
/** @typedef {import('@typescript-eslint/utils').TSESTree.CallExpression} CallExpression */
/** @typedef {import('@typescript-eslint/utils').TSESTree.TypeNode} TypeNode */
/**
 * @typedef {import('@typescript-eslint/utils').TSESTree.ArrowFunctionExpression
 *   | import('@typescript-eslint/utils').TSESTree.FunctionExpression
 *   | import('@typescript-eslint/utils').TSESTree.FunctionDeclaration} FunctionNode
 */

/**
 * `x!`, `x as T`, `x satisfies T`, `<T>x` and the optional chain `a?.b()` evaluate to `x` and
 * `a.b()`: the rule reads through them, so `crypto!.randomUUID()` is `crypto.randomUUID()`.
 * @param {Node} node
 * @returns {Node}
 */
export function unwrapExpression(node) {
  switch (node.type) {
    case 'ChainExpression':
    case 'TSNonNullExpression':
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
    case 'TSTypeAssertion':
      return unwrapExpression(node.expression)
    default:
      return node
  }
}

/**
 * The outermost expression that evaluates to `node`: the function itself, or the
 * `fn as WorkflowBody` / `fn satisfies WorkflowBody` around it. Its parent is where the value
 * goes (an argument list, a declarator, a property).
 * @param {Node} node
 * @returns {Node}
 */
export function outermostWrapper(node) {
  let current = node
  while (current.parent != null && isTransparentWrapper(current.parent)) {
    current = current.parent
  }
  return current
}

/** @param {Node} node */
function isTransparentWrapper(node) {
  return unwrapExpression(node) !== node
}

/**
 * The name a member access reads when it is fixed in the source: `Math.random` and
 * `Math['random']` both read `random`; `obj[key]` reads nothing known (null).
 * @param {MemberExpression} member
 * @returns {string | null}
 */
export function staticMemberName(member) {
  if (!member.computed) {
    return member.property.type === 'Identifier' ? member.property.name : null
  }
  return staticString(member.property)
}

/**
 * The name of an object key or a class member, when fixed: `run`, `'run'`, `['run']`; not
 * `[name]` nor `#run`.
 * @param {{ key: Node, computed: boolean }} member
 * @returns {string | null}
 */
export function staticKeyName(member) {
  if (!member.computed && member.key.type === 'Identifier') return member.key.name
  return staticString(member.key)
}

/** @param {Node} node */
function staticString(node) {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
    return node.quasis[0]?.value.cooked ?? null
  }
  return null
}

/**
 * The member a call calls, `<object>.<method>(…)` (through `?.` and `!`), or null.
 * @param {CallExpression} call
 * @returns {MemberExpression | null}
 */
export function calleeMember(call) {
  const callee = unwrapExpression(call.callee)
  return callee.type === 'MemberExpression' ? callee : null
}

/**
 * The nodes around `node`, innermost first, up to the Program (whose parent ESLint sets to
 * null, where the types say undefined).
 * @param {Node} node
 * @returns {Generator<Node>}
 */
export function* ancestors(node) {
  for (let current = node.parent; current != null; current = current.parent) yield current
}

/**
 * @param {Node} node
 * @returns {node is FunctionNode}
 */
export function isFunction(node) {
  return (
    node.type === 'ArrowFunctionExpression' ||
    node.type === 'FunctionExpression' ||
    node.type === 'FunctionDeclaration'
  )
}

/**
 * Whether a type annotation names `name`, plainly or qualified (`cairn.WorkflowBody`).
 * @param {TypeNode | undefined} type
 * @param {string} name
 */
export function typeNames(type, name) {
  if (type?.type !== 'TSTypeReference') return false
  const typeName = type.typeName
  if (typeName.type === 'Identifier') return typeName.name === name
  return typeName.type === 'TSQualifiedName' && typeName.right.name === name
}
