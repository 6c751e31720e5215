export { GENERATE_PIPELINE, GENERATED_FILE_PURPOSE, FILE_URL_TTL_S, checkTemplateInput, generatedFileUrl, generationFormats, generationState, generatorFor, inputOfGeneration, resultOfGeneration, submitGeneration } from './jobs.js';
export type { GenerateJobInput, GenerateJobResult, GenerationKind, GenerationState, SubmitGeneration } from './jobs.js';
export { TemplateBody, TemplatePatch, apiTemplate, createTemplate, deleteTemplate, loadTemplate, readableTemplates, updateTemplate } from './templates.js';
export type { SummaryLength, SummarySentence } from './compose.js';
export { markdownToBlocks } from './markdown.js';
