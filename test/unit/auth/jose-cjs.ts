/**
 * jose 6 ships ES modules only, and this jest config transforms only @middy in node_modules, so a
 * test cannot `require('jose')` as is. This bundles jose to CommonJS with esbuild (a dev dependency)
 * for `jest.mock('jose', () => require('./jose-cjs').loadJose())`. Drop it once jest.config.js lets
 * ts-jest transform jose (transformIgnorePatterns: `/node_modules/(?!(@middy|jose)/)`).
 */
import { buildSync } from 'esbuild';

export function loadJose(): unknown {
  const { outputFiles } = buildSync({
    entryPoints: [require.resolve('jose')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
  });
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', outputFiles[0]!.text)(module, module.exports, require);
  return module.exports;
}
