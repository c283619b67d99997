/**
 * The type-aware half: with type information (parserOptions.projectService or .project),
 * whether a value really is Cairn's Engine, WorkflowContext or a BaseWorkflow subclass.
 *
 * Each question answers 'yes', 'no' or 'unknown'. 'unknown' means no type information, or a
 * type TypeScript could not resolve (`any` from an import it could not follow): the rule then
 * goes by the shape of the code alone. So types only ever remove false positives (another
 * library's `.register(a, b, fn)`, a class extending some other `BaseWorkflow`) and find bodies
 * no shape names (a subclass of a subclass of BaseWorkflow, a function typed WorkflowBody
 * through a variable's type); a project without types loses nothing.
 */

/** @typedef {'yes' | 'no' | 'unknown'} Verdict */
/** @typedef {import('@typescript-eslint/utils').TSESTree.Node} Node */
/** @typedef {import('@typescript-eslint/utils').TSESTree.ClassDeclaration | import('@typescript-eslint/utils').TSESTree.ClassExpression} ClassNode */
/** @typedef {import('./syntax.js').FunctionNode} FunctionNode */
/** @typedef {import('@typescript-eslint/utils').TSESLint.SourceCode} SourceCode */
/** @typedef {import('typescript').Type} Type */
/** @typedef {import('typescript').TypeChecker} TypeChecker */

/**
 * @typedef {object} CairnTypes
 * @property {(expression: Node) => Verdict} isEngine the receiver of `.register(…)`
 * @property {(expression: Node) => Verdict} isWorkflowContext the receiver of `.localStep(…)`
 * @property {(classNode: ClassNode) => Verdict} extendsBaseWorkflow directly or not
 * @property {(fn: FunctionNode) => Verdict} receivesWorkflowContext a parameter's type, or the
 *   first parameter of the function type the context gives it (WorkflowBody)
 */

// ts.TypeFlags.Any and .Unknown (stable since TypeScript 2): read as numbers so that the
// plugin never loads `typescript` itself — a project without types may not have it.
const ANY_OR_UNKNOWN = 1 | 2

/** Cairn's packages: installed (node_modules/@cairn/core/…) or in the Cairn repository. */
const PACKAGE_FILE = {
  core: /\/(?:@cairn\/core|packages\/core)\//,
  adonis: /\/(?:@cairn\/adonis|packages\/adonis)\//,
}

/** @type {CairnTypes} */
const WITHOUT_TYPES = {
  isEngine: () => 'unknown',
  isWorkflowContext: () => 'unknown',
  extendsBaseWorkflow: () => 'unknown',
  receivesWorkflowContext: () => 'unknown',
}

/**
 * @param {SourceCode} sourceCode
 * @returns {CairnTypes}
 */
export function cairnTypes(sourceCode) {
  const services = sourceCode.parserServices
  const nodeMap = services?.esTreeNodeToTSNodeMap
  if (services?.program == null || nodeMap === undefined) return WITHOUT_TYPES
  const checker = services.program.getTypeChecker()
  /** @param {Node} node */
  const typeOf = (node) => checker.getTypeAtLocation(nodeMap.get(node))

  return {
    isEngine: (expression) => verdict(checker, typeOf(expression), 'Engine', 'core'),
    isWorkflowContext: (expression) =>
      verdict(checker, typeOf(expression), 'WorkflowContext', 'core'),
    extendsBaseWorkflow(classNode) {
      if (classNode.superClass == null) return 'no'
      // The instance type of what the class extends, then up its chain.
      const [construct] = typeOf(classNode.superClass).getConstructSignatures()
      if (construct === undefined) return 'unknown'
      return verdict(checker, construct.getReturnType(), 'BaseWorkflow', 'adonis')
    },
    receivesWorkflowContext(fn) {
      const verdicts = fn.params.map((param) =>
        verdict(checker, typeOf(param), 'WorkflowContext', 'core'),
      )
      if (verdicts.includes('yes')) return 'yes'
      if (fn.params.length > 0) return verdicts.includes('no') ? 'no' : 'unknown'
      // A declaration has no context to take parameters from.
      if (fn.type === 'FunctionDeclaration') return 'no'
      return contextualFirstParameter(checker, nodeMap.get(fn))
    },
  }
}

/**
 * A function written without parameters (`async () => …`) still has the parameters of the
 * function type its context expects: `const body: WorkflowBody = async () => …`.
 * @param {TypeChecker} checker
 * @param {import('typescript').Node} tsFunction a function expression, an arrow or a method
 * @returns {Verdict}
 */
function contextualFirstParameter(checker, tsFunction) {
  const expected = checker.getContextualType(
    /** @type {import('typescript').Expression} */ (tsFunction),
  )
  if (expected === undefined) return 'no'
  const [signature] = expected.getCallSignatures()
  const [first] = signature?.getParameters() ?? []
  if (first === undefined) return 'no'
  return verdict(
    checker,
    checker.getTypeOfSymbolAtLocation(first, tsFunction),
    'WorkflowContext',
    'core',
  )
}

/**
 * Whether `type` (or, for a class, one of its bases) is the type `name` declared in Cairn's
 * package `pkg`. `Engine | undefined` counts as Engine (`engine?.register`).
 * @param {TypeChecker} checker
 * @param {Type} type
 * @param {string} name
 * @param {keyof typeof PACKAGE_FILE} pkg
 * @returns {Verdict}
 */
function verdict(checker, type, name, pkg) {
  const defined = checker.getNonNullableType(type)
  if ((defined.getFlags() & ANY_OR_UNKNOWN) !== 0) return 'unknown'
  const candidates = defined.isUnion() ? defined.types : [defined]
  return candidates.some((candidate) => isCairnType(candidate, name, PACKAGE_FILE[pkg]))
    ? 'yes'
    : 'no'
}

/**
 * @param {Type} type
 * @param {string} name
 * @param {RegExp} packageFile
 * @param {number} depth a class chain is short; the bound only guards against a cycle
 * @returns {boolean}
 */
function isCairnType(type, name, packageFile, depth = 0) {
  const symbol = type.aliasSymbol ?? type.getSymbol()
  if (symbol?.getName() === name) {
    const declarations = symbol.getDeclarations() ?? []
    if (declarations.some((d) => packageFile.test(d.getSourceFile().fileName))) return true
  }
  if (depth > 20) return false
  // A generic class's instantiation (`BaseWorkflow<I, O>`) has its bases on its target.
  const declared =
    'target' in type ? /** @type {import('typescript').TypeReference} */ (type).target : type
  const bases = declared.getBaseTypes() ?? []
  return bases.some((base) => isCairnType(base, name, packageFile, depth + 1))
}
