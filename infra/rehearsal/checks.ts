/**
 * The rehearsal's checks of a function against its asset, before anything runs: the Handler's
 * module is a file of the asset and exports that name, as the Lambda runtime looks them up; and
 * every variable the template's Environment sets is named somewhere in the asset's code (a
 * variable no code reads is a misspelt or renamed one: the code then runs on its default or
 * fails). A variable the code needs and the template lacks shows when the function starts in the
 * emulator (the functions validate their environment at init, lib/hosts/lambdaConfig.ts); this
 * module lists the variables the code names and the template does not set, for the report.
 *
 * Pure: the asset is given as its files' names and texts.
 */
import type { LambdaFunctionWiring } from './wiring.ts';

/** AssetFile: one file of an asset directory (path relative to it). */
export interface AssetFile {
  readonly path: string;
  readonly text: string;
}

/** FunctionCheck: what the checks found for one function. */
export interface FunctionCheck {
  readonly function: string;
  /** The handler module's file in the asset, when found. */
  readonly handlerFile: string | undefined;
  /** Each a whole sentence naming the function: the rehearsal fails on any. */
  readonly problems: readonly string[];
  /** Variables the code names that the template does not set (they take the code's defaults). */
  readonly defaulted: readonly string[];
}

/** MODULE_EXTENSIONS: what the Node.js runtime tries for a handler's module, in its order. */
export const MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs'] as const;

/** RUNTIME_VARIABLES: variables the runtime itself reads, not the function's code. */
const isRuntimeVariable = (name: string): boolean => name === 'NODE_OPTIONS' || name.startsWith('AWS_') || name.startsWith('_');

/** splitHandler: `dir/module.export` → its module path and export name (the runtime splits at the last dot). */
export const splitHandler = (handler: string): { readonly module: string; readonly exportName: string } | undefined => {
  const dot = handler.lastIndexOf('.');
  if (dot <= 0 || dot === handler.length - 1) return undefined;
  return { module: handler.slice(0, dot), exportName: handler.slice(dot + 1) };
};

/** exportedNames: the names an ES module's text exports (`export { a as b, c }`, `export const|function|class x`). */
export const exportedNames = (text: string): Set<string> => {
  const names = new Set<string>();
  for (const match of text.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of (match[1] ?? '').split(',')) {
      const words = part.trim().split(/\s+as\s+/);
      const name = words[words.length - 1]?.trim();
      if (name) names.add(name.replace(/^["']|["']$/g, ''));
    }
  }
  for (const match of text.matchAll(/export\s+(?:default\s+)?(?:async\s+)?(?:const|let|var|function\*?|class)\s+([A-Za-z_$][\w$]*)/g)) if (match[1]) names.add(match[1]);
  if (/exports\.([A-Za-z_$][\w$]*)\s*=/.test(text) || /module\.exports\s*=/.test(text)) {
    for (const match of text.matchAll(/exports\.([A-Za-z_$][\w$]*)\s*=/g)) if (match[1]) names.add(match[1]);
  }
  return names;
};

/** isCommonJs: a .cjs file, or a .js one that assigns module.exports or exports.x (the runtime loads it with require). */
export const isCommonJs = (file: AssetFile): boolean =>
  file.path.endsWith('.cjs') || (file.path.endsWith('.js') && /\bmodule\.exports\s*=|\bexports\.[A-Za-z_$][\w$]*\s*=/.test(file.text) && !/^\s*export\s/m.test(file.text));

/** namedVariables: the LINEUP_* names the code holds as string literals (the variables it may read). */
export const namedVariables = (texts: readonly string[], prefix = 'LINEUP_'): Set<string> => {
  const names = new Set<string>();
  const pattern = new RegExp(`["'\`](${prefix}[A-Z0-9_]+)["'\`]`, 'g');
  for (const text of texts) for (const match of text.matchAll(pattern)) if (match[1]) names.add(match[1]);
  return names;
};

/**
 * checkFunction: the handler's module and export in `files`, and the template's variables
 * against the names the code holds. Every problem names the function and what is wrong.
 */
export const checkFunction = (fn: LambdaFunctionWiring, files: readonly AssetFile[]): FunctionCheck => {
  const problems: string[] = [];
  const split = splitHandler(fn.handler);
  let handlerFile: string | undefined;
  const listing = files.map((file) => file.path).sort().join(', ') || 'nothing';
  if (split === undefined) {
    problems.push(`function ${fn.logicalId}: Handler ${JSON.stringify(fn.handler)} is not module.export`);
  } else {
    const file = MODULE_EXTENSIONS.map((extension) => files.find((candidate) => candidate.path === `${split.module}${extension}`)).find((candidate) => candidate !== undefined);
    if (file === undefined) {
      problems.push(`function ${fn.logicalId}: Handler ${fn.handler} names module ${split.module}${MODULE_EXTENSIONS.join('|')}, which ${fn.assetDir} lacks (it holds ${listing})`);
    } else {
      handlerFile = file.path;
      // A CommonJS module's exports are known only when it runs (bundlers assign module.exports an object built at load):
      // the emulator's init checks those; an ES module's are read here.
      if (!isCommonJs(file) && !exportedNames(file.text).has(split.exportName)) {
        problems.push(`function ${fn.logicalId}: Handler ${fn.handler}: ${file.path} in ${fn.assetDir} exports no ${split.exportName} (it exports ${[...exportedNames(file.text)].sort().join(', ') || 'nothing'})`);
      }
    }
  }
  const code = files.filter((file) => /\.(m|c)?js$/.test(file.path)).map((file) => file.text);
  const named = namedVariables(code);
  for (const name of Object.keys(fn.environment)) {
    if (isRuntimeVariable(name)) continue;
    // The whole name: LINEUP_TABLE inside LINEUP_TABLE_NAME is not a read of LINEUP_TABLE.
    const whole = new RegExp(`(?<![A-Za-z0-9_])${name.replace(/[^A-Za-z0-9_]/g, '\\$&')}(?![A-Za-z0-9_])`);
    if (!code.some((text) => whole.test(text))) {
      problems.push(`function ${fn.logicalId}: the template sets environment variable ${name}, which no code in ${fn.assetDir} names (misspelt or renamed? the code reads ${[...named].sort().join(', ') || 'no LINEUP_ variable'})`);
    }
  }
  const defaulted = [...named].filter((name) => !(name in fn.environment)).sort();
  return { function: fn.logicalId, handlerFile, problems, defaulted };
};
