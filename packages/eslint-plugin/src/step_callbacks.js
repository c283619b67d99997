/**
 * Which functions are step callbacks: code the engine runs once and records, so that a replay
 * returns the record instead of running it again. Whatever they do is replay-safe.
 *
 *   - the function of `ctx.localStep(name, fn)`, `ctx.transaction(name, fn)` and
 *     `ctx.sideEffect(fn)`;
 *   - a `compensate` option (`{ compensate: (result) => … }`): a saga's undo, run as the
 *     recorded step `compensate:<name>`;
 *   - a function of the body's own that only step callbacks use: `const load = () => fetch(u)`
 *     then `ctx.localStep('load', load)` or `ctx.localStep('load', () => load())`.
 *
 * Registered step handlers (`ctx.step(ref, input)`) are not in the body at all. With type
 * information, a `.localStep` / `.transaction` / `.sideEffect` whose receiver is known not to be
 * Cairn's WorkflowContext (another object's `transaction(name, fn)`) is not a step: its
 * callback runs in the body.
 */
import { functionVariable, readsOf } from './bindings.js'
import {
  ancestors,
  calleeMember,
  isFunction,
  outermostWrapper,
  staticKeyName,
  staticMemberName,
} from './syntax.js'

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('./syntax.js').FunctionNode} FunctionNode */
/** @typedef {import('./cairn_types.js').CairnTypes} CairnTypes */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */

/** The WorkflowContext methods that run a function as a recorded step, and its argument. */
const STEP_FUNCTION_ARGUMENT = new Map([
  ['localStep', 1],
  ['transaction', 1],
  ['sideEffect', 0],
])

/**
 * @param {SourceCode} sourceCode
 * @param {CairnTypes} types
 */
export function createStepRecognizer(sourceCode, types) {
  /**
   * Answers so far; `false` while one is being worked out, so that recursion ends.
   * @type {WeakMap<FunctionNode, boolean>}
   */
  const known = new WeakMap()

  /** @param {Node} position a function or a reference to one, or its outermost wrapper */
  function isHandedToStep(position) {
    const parent = position.parent
    if (parent?.type === 'Property' && parent.value === position) {
      return staticKeyName(parent) === 'compensate'
    }
    if (parent?.type !== 'CallExpression') return false
    const member = calleeMember(parent)
    const index =
      member === null ? undefined : STEP_FUNCTION_ARGUMENT.get(staticMemberName(member) ?? '')
    if (member === null || index === undefined || parent.arguments[index] !== position) return false
    return types.isWorkflowContext(member.object) !== 'no'
  }

  /**
   * Whether `node` sits inside a step callback.
   * @param {Node} node
   */
  function isInsideStepCallback(node) {
    for (const current of ancestors(node)) {
      if (isFunction(current) && isStepCallback(current)) return true
    }
    return false
  }

  /**
   * Bound to a name that only step callbacks use (a recursive call inside the function itself
   * says nothing either way).
   * @param {FunctionNode} fn
   */
  function onlyStepsUse(fn) {
    const variable = functionVariable(sourceCode, outermostWrapper(fn))
    const reads = variable === null ? [] : readsOf(variable).filter((read) => !isWithin(read, fn))
    return (
      reads.length > 0 &&
      reads.every((read) => isHandedToStep(outermostWrapper(read)) || isInsideStepCallback(read))
    )
  }

  /** @param {FunctionNode} fn */
  function isStepCallback(fn) {
    const answer = known.get(fn)
    if (answer !== undefined) return answer
    known.set(fn, false)
    const result = isHandedToStep(outermostWrapper(fn)) || onlyStepsUse(fn)
    known.set(fn, result)
    return result
  }

  return isStepCallback
}

/**
 * @param {Node} node
 * @param {Node} ancestor
 */
function isWithin(node, ancestor) {
  for (const current of ancestors(node)) if (current === ancestor) return true
  return false
}
