/**
 * Import first in a test file that reads the functions' log lines: the Powertools logger takes its
 * level from POWERTOOLS_LOG_LEVEL when it is built (test/setup/env.ts makes it SILENT) and returns to
 * that level at every invocation, so it must be built at INFO. jest gives each test file its own
 * process.env, so the others stay quiet.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
