// `oda-tasks/langchain`: the two tools and the turn rules as one LangChain v1 `createAgent` middleware.
export * from "../integrations/langchain/middleware.js";
