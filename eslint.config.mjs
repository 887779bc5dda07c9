// ESLint's configuration (flat) for every hand-written script: the extension's (`extension/`) and
// the ones the wasm crates import (`page/js/`, `wasm-worker/js/`). `cargo xtask check-js` runs it
// after the TypeScript check; ESLint, `@eslint/js` and `globals` are pinned in
// `xtask/src/setup.rs` and installed into the tools folder, which the run names in
// `WAYMARK_ESLINT_MODULES` (the repository has no `node_modules`).
//
// The globals say where each script runs, so a name that does not exist there is an error:
// `document` in the service worker, `chrome` in the page's own world.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const modules = process.env.WAYMARK_ESLINT_MODULES;
const require = createRequire(modules ? join(modules, 'eslint.config.mjs') : import.meta.url);
const js = require('@eslint/js');
const globals = require('globals');

const rules = {
  ...js.configs.recommended.rules,
  'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none', ignoreRestSiblings: true }],
  // `x == null` (null or undefined) is the one loose comparison allowed.
  eqeqeq: ['error', 'always', { null: 'ignore' }],
  'no-var': 'error',
  'prefer-const': 'error',
  'no-eval': 'error',
  'no-implied-eval': 'error',
  'no-new-func': 'error',
  'no-throw-literal': 'error',
};

/** A group of scripts that run in the same place. */
const runs = (files, sourceType, ...where) => ({
  files,
  languageOptions: {
    ecmaVersion: 'latest',
    sourceType,
    globals: Object.assign({}, ...where),
  },
  rules,
});

export default [
  { ignores: ['extension/pkg*/**', '**/node_modules/**', 'target/**'] },
  // The service worker (a module) and the functions its wasm imports.
  runs(['extension/sw.js', 'wasm-worker/js/*.js'], 'module', globals.serviceworker, globals.webextensions),
  // The side panel, the offscreen document and what they share.
  runs(['extension/sidepanel.js', 'extension/panel/*.js', 'extension/chime.js', 'extension/offscreen.js'],
    'module', globals.browser, globals.webextensions),
  // The content script (injected as a classic script) and the functions the content wasm imports.
  runs(['extension/content.js'], 'script', globals.browser, globals.webextensions),
  runs(['page/js/*.js'], 'module', globals.browser),
  // The page's own world: the page's globals only.
  runs(['extension/page_hooks.js'], 'script', globals.browser),
  runs(['eslint.config.mjs'], 'module', globals.node),
];
