/** Split (spec §4.7): requests, plans, jobs, children, events and the operations of the API. */
export * from './requests.js';
export { SPLIT_METHODS, SECTION_TYPE, checkManualSections, pageSections, planSections } from './plan.js';
export type { PlannedSection, RequestedSection, SplitMethod, SplitPlanInput } from './plan.js';
export { SPLIT_PIPELINE, inputOf as splitJobInput, prepareSplit, startSplit } from './jobs.js';
export type { SplitJobInput, SplitSource } from './jobs.js';
export { sliceParsed } from './slice.js';
export { loadPdf, pdfPages } from './pdf.js';
export * from './service.js';
