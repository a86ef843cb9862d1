// `oda-tasks/ai`: the two tools for the Vercel AI SDK (`ai` >= 7), and one model call as one turn.
export * from "../integrations/ai.js";
