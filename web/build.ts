import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { buildSync } from 'esbuild';

/** One file of the built page: its URL path, type and bytes. */
export interface ExplorerFile {
  /** URL path: `/index.html` or `/assets/<name>-<hash>.<ext>`. */
  readonly path: string;
  readonly contentType: string;
  readonly body: Uint8Array;
}

const SOURCE = join(__dirname, 'src');
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/**
 * Builds the report explorer with esbuild: web/src/main.ts (and the CSS it imports) bundled and minified
 * into `/assets/explorer-<hash>.js` and `.css` with source maps, the sign-in code into a chunk loaded
 * only where the page signs people in, and index.html pointing at the entry. In
 * memory and synchronous (about 0.1 s), so `npm start` builds it at every start and the CDK construct
 * builds it during synth; nothing built is kept in the repository.
 */
export function buildExplorer(): ExplorerFile[] {
  const outdir = join(SOURCE, 'out'); // virtual: nothing is written
  const result = buildSync({
    entryPoints: { explorer: join(SOURCE, 'main.ts') },
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    sourcemap: 'linked',
    entryNames: 'assets/[name]-[hash]',
    // The sign-in (auth.ts and oauth4webapi) is imported only where the page signs people in: a chunk of its own.
    splitting: true,
    chunkNames: 'assets/[name]-[hash]',
    outdir,
    write: false,
    legalComments: 'linked',
    logLevel: 'silent',
  });
  const assets: ExplorerFile[] = result.outputFiles.map((f) => ({
    path: `/${relative(outdir, f.path).split('\\').join('/')}`,
    contentType: CONTENT_TYPES[extname(f.path)] ?? 'application/octet-stream',
    body: f.contents,
  }));
  const find = (ext: string) =>
    assets.find((a) => a.path.startsWith('/assets/explorer-') && a.path.endsWith(ext))?.path;
  const tags = [
    `<link rel="stylesheet" href="${find('.css')}">`,
    `<script type="module" src="${find('.js')}"></script>`,
  ].join('\n  ');
  const html = readFileSync(join(SOURCE, 'index.html'), 'utf8').replace('<!-- assets -->', tags);
  return [
    { path: '/index.html', contentType: CONTENT_TYPES['.html'] as string, body: new TextEncoder().encode(html) },
    ...assets,
  ];
}

/** Builds the explorer into a folder (index.html and assets/), as CloudFront serves it from S3. */
export function writeExplorer(folder: string): ExplorerFile[] {
  const files = buildExplorer();
  for (const file of files) {
    const target = join(folder, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.body);
  }
  return files;
}
