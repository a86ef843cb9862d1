// `oda-tasks/ai`: the two tools for the Vercel AI SDK (`ai` >= 7), and one model call as one turn.
export * from "../integrations/ai/tools.js";
export * from "../integrations/ai/response.js";
export type { OdaDataChunk, OdaDataTypes, OdaPartWriter } from "../integrations/ai/parts.js";
export { previewCard, type PreviewCard } from "../elements/preview-card.js";
