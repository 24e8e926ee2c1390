import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '#shared/service-identity';

/** One logger per process (Powertools: JSON logs with the request id). Level from POWERTOOLS_LOG_LEVEL. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
