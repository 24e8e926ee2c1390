// Runs before every test file: keep Powertools quiet unless a test run asks for logs.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'true';
