/**
 * Workflow templates (GET/POST /api/workflows/templates): ready workflows by category. Each runs as it is
 * (parse → extract with a prebuilt schema → a summary made by a transform step); given an integration_id
 * when the workflow is made from it, an integration step posts the summary there.
 */
import type { WorkflowDefinition, TriggerConfig } from './definition.js';

export interface WorkflowTemplate {
  id: string;
  name: string;
  description: string;
  category: 'invoice' | 'contract' | 'resume' | 'general';
  trigger_type: 'manual' | 'event';
  trigger_config: TriggerConfig;
  definition: WorkflowDefinition;
  /** the template of the integration step added when an integration is given */
  integration_template: string;
}

export const WORKFLOW_TEMPLATES: readonly WorkflowTemplate[] = [
  {
    id: 'invoice-pdf-summary',
    name: 'Invoice intake',
    description: 'On upload of a PDF: parse it, extract the invoice fields, and make a one-line summary (posted to an integration when one is given).',
    category: 'invoice',
    trigger_type: 'event',
    trigger_config: { event: 'document.uploaded', filters: { file_type: 'pdf' } },
    definition: {
      steps: [
        { id: 'parse', type: 'parse', config: {} },
        { id: 'extract', type: 'extract', config: { schema_id: 'invoice' } },
        {
          id: 'summary',
          type: 'transform',
          config: { mapping: { summary: '"Invoice " & ($exists(invoice_number) ? invoice_number : "(no number)") & " from " & ($exists(vendor) ? vendor : "(unknown vendor)") & ": total " & ($exists(total) ? $string(total) : "?")', needs_review: '$not($exists(total)) or steps.extract.overall_confidence < 0.6' } },
        },
      ],
    },
    integration_template: '{"text": "{{summary}}", "invoice_number": {{json invoice_number}}, "total": {{json total}}, "document_id": "{{document_id}}"}',
  },
  {
    id: 'contract-review',
    name: 'Contract review',
    description: 'On upload of a PDF: parse it, extract parties, dates and value, and flag contracts that renew automatically or lack an end date.',
    category: 'contract',
    trigger_type: 'event',
    trigger_config: { event: 'document.uploaded', filters: { file_type: 'pdf' } },
    definition: {
      steps: [
        { id: 'parse', type: 'parse', config: {} },
        { id: 'extract', type: 'extract', config: { schema_id: 'contract' } },
        { id: 'summary', type: 'transform', config: { mapping: { summary: '"Contract " & ($exists(title) ? title : document_name) & ", effective " & ($exists(effective_date) ? effective_date : "?")', needs_review: '$not($exists(end_date)) or $exists(renewal)' } } },
      ],
    },
    integration_template: '{"text": "{{summary}}", "needs_review": {{json needs_review}}, "document_id": "{{document_id}}"}',
  },
  {
    id: 'resume-screening',
    name: 'Resume screening',
    description: 'Run on a resume (trigger_data.document_id): parse it, extract the candidate profile and summarise it.',
    category: 'resume',
    trigger_type: 'manual',
    trigger_config: {},
    definition: {
      steps: [
        { id: 'parse', type: 'parse', config: {} },
        { id: 'extract', type: 'extract', config: { schema_id: 'resume' } },
        { id: 'summary', type: 'transform', config: { mapping: { summary: '"Candidate " & ($exists(name) ? name : "(no name)") & ($exists(title) ? " — " & title : "")', contact: '$exists(email) ? email : null' } } },
      ],
    },
    integration_template: '{"text": "{{summary}}", "contact": {{json contact}}, "document_id": "{{document_id}}"}',
  },
  {
    id: 'general-digest',
    name: 'Document digest',
    description: 'Run on any document (trigger_data.document_id): parse it and make a short digest of its name, pages and opening text.',
    category: 'general',
    trigger_type: 'manual',
    trigger_config: {},
    definition: {
      steps: [
        { id: 'parse', type: 'parse', config: {} },
        { id: 'digest', type: 'transform', config: { mapping: { summary: 'document_name & " (" & $string(pages) & " pages)"', preview: '$substring(text, 0, 300)' } } },
      ],
    },
    integration_template: '{"text": "{{summary}}", "preview": {{json preview}}, "document_id": "{{document_id}}"}',
  },
];

/** The definition of a workflow made from a template, with an integration step when an integration is given. */
export function templateDefinition(t: WorkflowTemplate, integrationId?: string | null): WorkflowDefinition {
  const steps = t.definition.steps.map((s) => structuredClone(s));
  if (integrationId) steps.push({ id: 'notify', type: 'integration', config: { integration_id: integrationId, template: t.integration_template } });
  return { steps };
}
