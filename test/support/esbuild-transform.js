/**
 * Jest's TypeScript transform: esbuild, transpiling only, one file at a time (type checking is
 * `npm run typecheck`'s; tsconfig.json has isolatedModules, so a file alone is enough). About a
 * tenth of ts-jest's time per file, which is most of a cold unit tier.
 */
const crypto = require('node:crypto');
const { transformSync, version } = require('esbuild');

// import() becomes a require, as TypeScript writes it for CommonJS: jest's module registry loads
// nothing else without --experimental-vm-modules.
const OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  target: 'es2022',
  supported: { 'dynamic-import': false },
  sourcemap: 'external',
  sourcesContent: false,
};

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, { ...OPTIONS, sourcefile: filename });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(version).update(JSON.stringify(OPTIONS)).update(filename).update(source).digest('hex');
  },
};
