/**
 * Every migration, oldest first. They run at start-up (each once, recorded in `quire_migrations`).
 * To change the schema, add a file `<13-digit epoch ms>-<what>.ts` exporting a class named
 * `<What><same epoch ms>` and append it here. Never edit a migration that has shipped.
 */
import type { MigrationInterface } from 'typeorm';
import { Initial1795297866386 } from './1795297866386-initial.js';
import { KnowledgeExtraction1795400000000 } from './1795400000000-knowledge-extraction.js';
import { StageMessages1795500000000 } from './1795500000000-stage-messages.js';
import { Webhooks1795600000000 } from './1795600000000-webhooks.js';
import { Workflows1795700000000 } from './1795700000000-workflows.js';
import { Accounts1795800000000 } from './1795800000000-accounts.js';
import { Totp1795810000000 } from './1795810000000-totp.js';
import { AuditLog1795850000000 } from './1795850000000-audit-log.js';
import { Generation1795900000000 } from './1795900000000-generation.js';
import { Split1795910000000 } from './1795910000000-split.js';
import { Edit1795920000000 } from './1795920000000-edit.js';
import { Gdpr1795940000000 } from './1795940000000-gdpr.js';
import { WorkflowScope1795953000000 } from './1795953000000-workflow-scope.js';
import { CreditHolds1795960000000 } from './1795960000000-credit-holds.js';
import { Invitations1795970000000 } from './1795970000000-invitations.js';
import { WorkflowTriggers1795990000000 } from './1795990000000-workflow-triggers.js';
import { JobProgressDetail1795990800000 } from './1795990800000-job-progress-detail.js';

export const MIGRATIONS: (new () => MigrationInterface)[] = [Initial1795297866386, KnowledgeExtraction1795400000000, StageMessages1795500000000, Webhooks1795600000000, Workflows1795700000000, Accounts1795800000000, Totp1795810000000, AuditLog1795850000000, Generation1795900000000, Split1795910000000, Edit1795920000000, Gdpr1795940000000, WorkflowScope1795953000000, CreditHolds1795960000000, Invitations1795970000000, WorkflowTriggers1795990000000, JobProgressDetail1795990800000];
