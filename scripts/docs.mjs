// `npm run docs`: the API reference from the doc comments (TypeDoc, into
// docs/api/), failing on any TypeDoc warning and on any export without an
// `@example`. Run after `npm run build` (the reference reads pkg/src/gen/).
import { Application, ReflectionKind } from "typedoc";

const app = await Application.bootstrapWithPlugins({ options: "typedoc.json" });
const project = await app.convert();
if (!project) process.exit(1);
app.validate(project);

/** Top-level exports that must show how they are used. */
const KINDS =
  ReflectionKind.Class |
  ReflectionKind.Function |
  ReflectionKind.Variable |
  ReflectionKind.Interface |
  ReflectionKind.TypeAlias |
  ReflectionKind.Enum;
const hasExample = (comment) => comment?.blockTags?.some((tag) => tag.tag === "@example") ?? false;
const missing = [];
for (const module of project.children ?? []) {
  for (const child of module.children ?? []) {
    if (!child.kindOf(KINDS)) continue; // re-exports are references: checked where they are declared
    const comments = [child.comment, ...(child.signatures ?? []).map((s) => s.comment)];
    if (!comments.some(hasExample)) missing.push(`${module.name}.${child.name}`);
  }
}
for (const name of missing) app.logger.warn(`${name} has no @example`);

await app.generateDocs(project, app.options.getValue("out"));
await app.generateJson(project, app.options.getValue("json"));
const warnings = app.logger.warningCount + app.logger.errorCount;
if (warnings > 0) {
  console.error(`docs: ${warnings} warning(s); the reference must build without any`);
  process.exit(1);
}
console.error(`docs: the API reference is in ${app.options.getValue("out")}/index.html`);
