/**
 * The layering as rules (`npm test` runs them: test/architecture/dependencies.test.ts). Folders, lowest first:
 * machines ← engine ← web ← api ← cli, and engine ← sim; hosts/ (each git host's declaration: hosts/hostPlugin.ts)
 * sits on the engine, below api/ and cli/; conformance/ is the conformance client (cli runs it).
 * Inside engine, what runs inside a queue transaction (machines, engine/model, engine/planner, engine/transaction)
 * is the decision side: it imports nothing of the side that drives it (the runtime, the store's implementations,
 * metrics, the Engine façade), which passes in what it needs. No value-import cycle anywhere: a type-only import
 * (`import type`, erased from the JavaScript) may close a loop, as it orders nothing at run time.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const PRODUCTION = '^(machines|engine|hosts|web|api|sim|cli|conformance)/';

module.exports = {
  forbidden: [
    {
      name: 'no-value-cycle',
      comment: 'A value import (one that stays in the JavaScript) that closes a loop of value imports.',
      severity: 'error',
      from: { path: PRODUCTION },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only', 'type-import'] } },
    },
    {
      name: 'machines-are-lowest',
      comment: 'machines/ is the lowest layer: the lifecycles know nothing of the engine or anything above it.',
      severity: 'error',
      from: { path: '^machines/' },
      to: { path: '^(engine|hosts|web|api|sim|cli|conformance)/' },
    },
    {
      name: 'engine-below-web-api-cli-sim',
      comment: 'engine/ is below hosts/, web/, api/, cli/ and sim/, which use it.',
      severity: 'error',
      from: { path: '^engine/' },
      to: { path: '^(hosts|web|api|sim|cli|conformance)/' },
    },
    {
      name: 'hosts-below-api-cli',
      comment:
        'hosts/ (what each git host declares, and its factory) is below api/ and cli/, which register and open them.',
      severity: 'error',
      from: { path: '^hosts/' },
      to: { path: '^(web|api|sim|cli|conformance)/' },
    },
    {
      name: 'web-below-api',
      comment: "web/ (the dashboard's pages) is below api/ (which serves them) and cli/.",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(hosts|api|sim|cli|conformance)/' },
    },
    {
      name: 'sim-beside-web',
      comment: 'sim/ (the simulator) uses the engine; cli/ runs it; it reaches nothing of web/, api/ or cli/.',
      severity: 'error',
      from: { path: '^sim/' },
      to: { path: '^(hosts|web|api|cli|conformance)/' },
    },
    {
      name: 'conformance-is-a-client',
      comment: "conformance/ is an HTTP client of the API: it reaches the machines' names, not the service's code.",
      severity: 'error',
      from: { path: '^conformance/' },
      to: { path: '^(engine|hosts|web|api|sim|cli)/' },
    },
    {
      name: 'only-cli-imports-api',
      comment: 'Nothing of the service imports api/ but cli/ (tests and benchmarks start it, as cli/ does).',
      severity: 'error',
      from: { path: PRODUCTION, pathNot: '^(cli|api)/' },
      to: { path: '^api/' },
    },
    {
      name: 'decisions-below-effects',
      comment:
        'What runs inside a transaction (machines, engine/model, engine/planner, engine/transaction) imports nothing ' +
        "from the runtime, the store's implementations, metrics or the Engine façade: the runtime drives it and " +
        "passes in what it needs. The store's interface (store/store.ts) and its record types (store/recordTypes.ts) it may name.",
      severity: 'error',
      from: { path: '^(machines|engine/(model|planner|transaction))/' },
      to: {
        path: '^engine/(runtime/|metrics/|store/|engine\\.ts$|engineTypes\\.ts$|serviceReads\\.ts$|queueViews\\.ts$|pullRequestViews\\.ts$|reads\\.ts$|queueReads\\.ts$|queueIndex\\.ts$)',
        pathNot: '^engine/store/(store|recordTypes)\\.ts$',
      },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that names no file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
