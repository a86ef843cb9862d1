// Mounts one of the docs' pages (app/<name>/page.tsx) in a Vite page of the
// agent UIs' consumer project: the HTML file's `data-page` names it; each
// page's code is a chunk of its own.
import { createRoot } from "react-dom/client";

const root = document.getElementById("root");
if (root !== null) {
  const load = root.dataset.page === "copilotkit" ? () => import("./app/copilotkit/page") : () => import("./app/assistant-ui/page");
  const { default: Page } = await load();
  createRoot(root).render(<Page />);
}
