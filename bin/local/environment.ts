/**
 * The environment `npm start` gives the handlers, set before any of them loads: the Powertools
 * logger reads its level when its module is first imported (functions/commons/powertools/logger.ts),
 * so a level set later, in main(), came too late and every INFO line (a refused request, each
 * occupancy refresh: every round of `--simulate`) reached the console and pushed the banner away.
 * Imported first by bin/local-server.ts; each can still be set by the shell.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Warnings and errors only; LOG_REQUESTS=1 prints a line per request instead (bin/local/server.ts).
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
// No CloudWatch here: keep the EMF metric lines off the console (the handlers still record them).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

export {};
