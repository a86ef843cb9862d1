// One streamed model call as one turn, answered as `useChat` reads it: the
// turn lasts as long as the model's stream, not as long as the request, and
// the plan and suggestions ride in the stream as data parts.
import { createUIMessageStream, createUIMessageStreamResponse } from "ai";
import type { IdGenerator, UIMessage, UIMessageChunk, UIMessageStreamOnEndCallback } from "ai";
import { ANY, BOOLEAN, ownOptions, readOptions, type OptionRule } from "../../core/options.js";
import { aiTurn, type AiTurn, type AiTurnOptions } from "./tools.js";
import { partWriter, PendingWriter, type OdaPartWriter } from "./parts.js";

/**
 * What the call given to {@link aiTurnResponse} or {@link aiTurnStream}
 * returns: `streamText`'s result (its UI message stream, and the reading of
 * the model's stream to its end).
 *
 * @example
 * import { streamText } from "ai";
 * const reply: StreamedReply = streamText({ model, tools: aiTools({ store, chatId }), messages });
 */
export interface StreamedReply {
  /** The reply as UI message chunks, what `useChat` reads. */
  toUIMessageStream(options?: { sendReasoning?: boolean; sendSources?: boolean }): ReadableStream<UIMessageChunk>;
  /** Reads the model's stream to its end, whoever reads the UI stream; settles then. */
  consumeStream(options?: { onError?: (error: unknown) => void }): PromiseLike<void>;
}

/** How `streamText`'s result becomes UI message chunks (its `toUIMessageStream` options). */
interface ReplyStreamOptions {
  /** Send the model's reasoning to the client (the SDK's default: `true`). */
  sendReasoning?: boolean;
  /** Send source parts to the client (the SDK's default: `false`). */
  sendSources?: boolean;
}

/**
 * Options of {@link aiTurnStream}: {@link aiTurn}'s, with the app's `writer`.
 *
 * @example
 * import { createUIMessageStream, type UIMessage } from "ai";
 * createUIMessageStream<UIMessage<never, OdaDataTypes>>({ execute: ({ writer }) => void ({ store, chatId, writer } satisfies AiTurnStreamOptions) });
 */
export interface AiTurnStreamOptions extends AiTurnOptions, ReplyStreamOptions {
  /** The app's `createUIMessageStream` writer: the turn's parts are written and the model's stream merged into it. */
  writer: OdaPartWriter & MergingWriter;
}

/**
 * A writer that merges a stream into its own (the AI SDK's `UIMessageStreamWriter` is one).
 *
 * @example
 * import { createUIMessageStream } from "ai";
 * createUIMessageStream({ execute: ({ writer }) => void (writer satisfies MergingWriter) });
 */
export interface MergingWriter {
  /** Merges the chunks of `stream` into the writer's stream. */
  merge(stream: ReadableStream<UIMessageChunk>): void;
}

/**
 * Options of {@link aiTurnResponse}: {@link aiTurn}'s, and what is passed on
 * to the AI SDK's `createUIMessageStream` (`originalMessages`, `onFinish`
 * for the app's own message saving, `onError`, `generateId`) and
 * `createUIMessageStreamResponse` (`headers`, `status`, `statusText`).
 *
 * @example
 * import type { UIMessage } from "ai";
 * const options: AiTurnResponseOptions<UIMessage<never, OdaDataTypes>> = { store, chatId: id, onFinish: ({ messages }) => show(messages) };
 */
export interface AiTurnResponseOptions<UI_MESSAGE extends UIMessage = UIMessage> extends AiTurnOptions, ReplyStreamOptions {
  originalMessages?: UI_MESSAGE[];
  onFinish?: UIMessageStreamOnEndCallback<UI_MESSAGE>;
  /** The error text the client gets (the SDK's default hides the error: "An error occurred."). */
  onError?: (error: unknown) => string;
  generateId?: IdGenerator;
  headers?: HeadersInit;
  status?: number;
  statusText?: string;
}

const FUNCTION: OptionRule = { expected: "a function", check: (v) => typeof v === "function" };
const ARRAY: OptionRule = { expected: "an array", check: (v) => Array.isArray(v) };
const STRING: OptionRule = { expected: "a string", check: (v) => typeof v === "string" };
const STATUS: OptionRule = {
  expected: "an HTTP status (200 to 599)",
  check: (v) => Number.isInteger(v) && (v as number) >= 200 && (v as number) <= 599,
};
const REPLY_RULES = { sendReasoning: BOOLEAN, sendSources: BOOLEAN };

/**
 * One streamed model call as one turn of chat `chatId`, answered as the
 * `Response` of a UI message stream (what `useChat` reads). The turn
 * begins before `call` runs and ends once the model's stream has been read
 * to its end: on finish, on an error, on an abort (`abortSignal`). The
 * model's stream is read to its end even when nobody reads the response (a
 * closed tab): the model runs on and the turn still ends. `call` gets what
 * {@link aiTurn} hands its call and returns `streamText`'s result. The plan
 * is written as the `data-oda-plan` part when the turn begins, after each
 * recorded `todo_write` and when the turn has ended; `data-oda-suggestions`
 * after each recorded `suggest_task`. Rejects (and the turn ends) when
 * beginning the turn or `call` fails.
 *
 * @example
 * import { convertToModelMessages, streamText } from "ai";
 * import { aiTurnResponse } from "oda-tasks/ai";
 * export const POST = async (request: Request) => {
 *   const { id, messages } = await request.json();
 *   return aiTurnResponse({ store, chatId: id }, async ({ tools, reminder, prepareStep }) =>
 *     streamText({ model, tools, system: reminder ?? undefined, prepareStep, messages: await convertToModelMessages(messages, { tools }) }));
 * };
 */
export async function aiTurnResponse<UI_MESSAGE extends UIMessage = UIMessage>(
  options: AiTurnResponseOptions<UI_MESSAGE>,
  call: (turn: AiTurn) => StreamedReply | PromiseLike<StreamedReply>,
): Promise<Response> {
  if (typeof call !== "function") throw new TypeError("oda-tasks: invalid arguments of aiTurnResponse: `call` must be a function");
  const { originalMessages, onFinish, onError, generateId, headers, status, statusText, sendReasoning, sendSources, ...turn } = ownOptions(
    "aiTurnResponse",
    options,
  );
  if (turn.writer !== undefined) {
    throw new TypeError(
      "oda-tasks: invalid arguments of aiTurnResponse: it makes its own stream; with a `writer` of your own, use aiTurnStream",
    );
  }
  // Every option is checked before the turn's first entry is written (the turn's own by aiTurn, below).
  const streamOptions = readOptions<Pick<AiTurnResponseOptions<UI_MESSAGE>, "originalMessages" | "onFinish" | "onError" | "generateId">>(
    "aiTurnResponse",
    { originalMessages, onFinish, onError, generateId },
    { originalMessages: ARRAY, onFinish: FUNCTION, onError: FUNCTION, generateId: FUNCTION },
  );
  const replyOptions = readOptions<ReplyStreamOptions>("aiTurnResponse", { sendReasoning, sendSources }, REPLY_RULES);
  const init = readOptions<Pick<AiTurnResponseOptions, "headers" | "status" | "statusText">>(
    "aiTurnResponse",
    { headers, status, statusText },
    { headers: ANY, status: STATUS, statusText: STRING },
  );
  const parts = new PendingWriter();
  let ended: (failure?: unknown) => void = () => undefined;
  const turnEnded = new Promise<void>((done, fail) => {
    ended = (failure) => (failure === undefined ? done() : fail(failure));
  });
  turnEnded.catch(() => undefined); // read by the stream once there is one; else its failure is the rejection below
  return new Promise<Response>((resolve, reject) => {
    aiTurn({ ...turn, writer: parts } as unknown as AiTurnOptions, async (t) => {
      const reply = replyOf("aiTurnResponse", await call(t));
      const body = createUIMessageStream<UI_MESSAGE>({
        ...streamOptions,
        execute: ({ writer }) => {
          writer.merge(parts.afterStart(reply.toUIMessageStream(replyOptions), writer as unknown as OdaPartWriter) as never);
          // Open until the turn has ended and its finished plan is written; a failed end is the stream's error.
          return turnEnded;
        },
      });
      resolve(createUIMessageStreamResponse({ stream: body, ...init }));
      await reply.consumeStream();
    }).then(
      () => ended(),
      (e: unknown) => {
        ended(e ?? new Error("oda-tasks: the turn failed"));
        reject(e); // no effect once the response was given: its stream carries the error instead
      },
    );
  });
}

/**
 * {@link aiTurnResponse} for an app that makes its own UI message stream
 * (`createUIMessageStream`, as Vercel's chatbot template does): runs one
 * turn whose parts and model stream are merged into the app's `writer`;
 * the app's own parts stay as they are. Resolves once the turn has ended:
 * await it in `execute`.
 *
 * @example
 * import { createUIMessageStream, createUIMessageStreamResponse, streamText, type UIMessage } from "ai";
 * import { aiTurnStream, type OdaDataTypes } from "oda-tasks/ai";
 * const stream = createUIMessageStream<UIMessage<never, OdaDataTypes & { title: string }>>({
 *   execute: async ({ writer }) => {
 *     writer.write({ type: "data-title", data: "Release plan" }); // the app's own part
 *     await aiTurnStream({ store, chatId: "chat-1", writer }, ({ tools, reminder }) => streamText({ model, tools, system: reminder ?? undefined, messages }));
 *   },
 * });
 * const response = createUIMessageStreamResponse({ stream }); // the route's answer
 */
export async function aiTurnStream(
  options: AiTurnStreamOptions,
  call: (turn: AiTurn) => StreamedReply | PromiseLike<StreamedReply>,
): Promise<void> {
  if (typeof call !== "function") throw new TypeError("oda-tasks: invalid arguments of aiTurnStream: `call` must be a function");
  const { sendReasoning, sendSources, writer, ...turn } = ownOptions("aiTurnStream", options);
  const replyOptions = readOptions<ReplyStreamOptions>("aiTurnStream", { sendReasoning, sendSources }, REPLY_RULES);
  const target = partWriter("aiTurnStream", writer);
  if (typeof (target as { merge?: unknown }).merge !== "function") {
    throw new TypeError("oda-tasks: invalid arguments of aiTurnStream: `writer` must be a UI message stream writer (it has no merge)");
  }
  const parts = new PendingWriter();
  await aiTurn({ ...turn, writer: parts } as unknown as AiTurnOptions, async (t) => {
    const reply = replyOf("aiTurnStream", await call(t));
    (target as AiTurnStreamOptions["writer"]).merge(parts.afterStart(reply.toUIMessageStream(replyOptions), target));
    await reply.consumeStream();
  });
}

/** `value` as a streamed reply, or the host's mistake named (a `generateText` result, a forgotten return). */
function replyOf(name: string, value: unknown): StreamedReply {
  const r = value as Partial<StreamedReply> | null | undefined;
  if (typeof r?.toUIMessageStream !== "function" || typeof r?.consumeStream !== "function") {
    throw new TypeError(`oda-tasks: ${name}'s call must return streamText's result (it has no toUIMessageStream or consumeStream)`);
  }
  return r as StreamedReply;
}
