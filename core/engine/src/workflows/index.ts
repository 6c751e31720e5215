/** Workflows (spec §4.9): definitions, executions, triggers, integrations and templates. */
export * from './definition.js';
export * from './executions.js';
export * from './integrations.js';
export * from './plugin-steps.js';
export * from './run.js';
export * from './scope.js';
export * from '../infra/secrets.js';
export * from './send.js';
export * from './templates.js';
export * from './triggers.js';
export * from './manage.js';
export * from './trigger-set.js';
