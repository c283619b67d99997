/**
 * Where a piece of code runs: in a workflow body (again on every replay) or not. The nearest
 * enclosing function that is a step callback or a body decides; any other function on the way
 * (a helper declared in the body, a `.map` callback, a `.then` handler) runs wherever the code
 * around it runs, so it is looked through.
 */
import { cairnTypes } from './cairn_types.js'
import { createStepRecognizer } from './step_callbacks.js'
import { ancestors, isFunction } from './syntax.js'
import { createBodyRecognizer } from './workflow_bodies.js'

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('./syntax.js').FunctionNode} FunctionNode */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */
/** @typedef {'body' | 'step' | 'neither'} Role */

/**
 * @param {SourceCode} sourceCode
 * @returns {(node: Node) => boolean} whether `node` runs in a workflow body
 */
export function createPlacement(sourceCode) {
  const types = cairnTypes(sourceCode)
  const isStepCallback = createStepRecognizer(sourceCode, types)
  const isWorkflowBody = createBodyRecognizer(sourceCode, types)
  /** @type {WeakMap<FunctionNode, Role>} */
  const roles = new WeakMap()

  /** @param {FunctionNode} fn */
  function roleOf(fn) {
    let role = roles.get(fn)
    if (role === undefined) {
      // Handed to a step, a function is a step whatever its parameters say.
      role = isStepCallback(fn) ? 'step' : isWorkflowBody(fn) ? 'body' : 'neither'
      roles.set(fn, role)
    }
    return role
  }

  return function runsInWorkflowBody(node) {
    for (const current of ancestors(node)) {
      if (!isFunction(current)) continue
      const role = roleOf(current)
      if (role !== 'neither') return role === 'body'
    }
    return false
  }
}
