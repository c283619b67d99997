/**
 * Which functions are workflow bodies: code that runs again from the top on every replay.
 *
 * By shape, without type information:
 *   - the body argument of `<x>.register(name, version, body, options?)`, written there or
 *     passed by the name of a function of the same file (`engine.register('order', 1, orderV1)`);
 *   - `run` and `deadLetter` of a class extending `BaseWorkflow` (@cairn/adonis);
 *   - a function typed `WorkflowBody` (`const body: WorkflowBody = …`, `… satisfies WorkflowBody`,
 *     `… as WorkflowBody`);
 *   - a function with a parameter annotated `WorkflowContext`: a helper the body hands its `ctx`
 *     to runs in the body (`async #charge(ctx: WorkflowContext, …)`).
 *
 * With type information (cairn_types.js) a shape whose receiver, base class or parameter turns
 * out not to be Cairn's is dropped, and any function whose parameters are Cairn's
 * WorkflowContext — however it got that type — is a body.
 */
import { functionVariable, readsOf } from './bindings.js'
import {
  calleeMember,
  outermostWrapper,
  staticKeyName,
  staticMemberName,
  typeNames,
  unwrapExpression,
} from './syntax.js'

/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('./syntax.js').FunctionNode} FunctionNode */
/** @typedef {import('./cairn_types.js').CairnTypes} CairnTypes */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */

/** BaseWorkflow's methods that the engine runs as workflow bodies. */
const BODY_METHODS = new Set(['run', 'deadLetter'])

/** `register(name, version, body)` or `register(name, version, body, options)`. */
const BODY_ARGUMENT = 2

/**
 * @param {SourceCode} sourceCode
 * @param {CairnTypes} types
 */
export function createBodyRecognizer(sourceCode, types) {
  /** @param {Node} position the function, or its outermost `as` / `satisfies` */
  function isRegisteredBody(position) {
    const call = position.parent
    if (call?.type !== 'CallExpression' || call.arguments[BODY_ARGUMENT] !== position) return false
    if (call.arguments.length > BODY_ARGUMENT + 2) return false
    const member = calleeMember(call)
    if (member === null || staticMemberName(member) !== 'register') return false
    return types.isEngine(member.object) !== 'no'
  }

  /** @param {FunctionNode} fn */
  function isRegisteredByName(fn) {
    const variable = functionVariable(sourceCode, outermostWrapper(fn))
    return (
      variable !== null &&
      readsOf(variable).some((read) => isRegisteredBody(outermostWrapper(read)))
    )
  }

  /** @param {FunctionNode} fn */
  function isBaseWorkflowMethod(fn) {
    const member = outermostWrapper(fn).parent
    if (member?.type !== 'MethodDefinition' && member?.type !== 'PropertyDefinition') return false
    if (member.static || !BODY_METHODS.has(staticKeyName(member) ?? '')) return false
    const classNode = member.parent.parent
    if (classNode.type !== 'ClassDeclaration' && classNode.type !== 'ClassExpression') return false
    const verdict = types.extendsBaseWorkflow(classNode)
    if (verdict !== 'unknown') return verdict === 'yes'
    return classNode.superClass != null && namesBaseWorkflow(classNode.superClass)
  }

  /** @param {FunctionNode} fn */
  function isTypedWorkflowBody(fn) {
    for (let node = /** @type {Node} */ (fn); node.parent != null; node = node.parent) {
      const parent = node.parent
      if (parent.type === 'TSAsExpression' || parent.type === 'TSSatisfiesExpression') {
        if (typeNames(parent.typeAnnotation, 'WorkflowBody')) return true
        continue
      }
      if (parent.type === 'VariableDeclarator' && parent.init === node) {
        return typeNames(parent.id.typeAnnotation?.typeAnnotation, 'WorkflowBody')
      }
      if (unwrapExpression(parent) === parent) return false
    }
    return false
  }

  /** @param {FunctionNode} fn */
  function annotatesWorkflowContext(fn) {
    return fn.params.some((param) => {
      const target = param.type === 'AssignmentPattern' ? param.left : param
      return (
        'typeAnnotation' in target &&
        typeNames(target.typeAnnotation?.typeAnnotation, 'WorkflowContext')
      )
    })
  }

  /** @param {FunctionNode} fn */
  return function isWorkflowBody(fn) {
    const receivesContext = types.receivesWorkflowContext(fn)
    if (receivesContext === 'yes') return true
    if (isRegisteredBody(outermostWrapper(fn)) || isRegisteredByName(fn)) return true
    if (isBaseWorkflowMethod(fn)) return true
    if (receivesContext === 'no') return false
    return isTypedWorkflowBody(fn) || annotatesWorkflowContext(fn)
  }
}

/**
 * `extends BaseWorkflow<I, O>` or `extends cairn.BaseWorkflow<I, O>`.
 * @param {Node} superClass
 */
function namesBaseWorkflow(superClass) {
  const expression = unwrapExpression(superClass)
  if (expression.type === 'Identifier') return expression.name === 'BaseWorkflow'
  return expression.type === 'MemberExpression' && staticMemberName(expression) === 'BaseWorkflow'
}
