// `oda-tasks/acp`: the two tools and the turn rules for an Agent Client Protocol agent; each recorded list is a `plan` update.
export * from "../integrations/acp/agent.js";
