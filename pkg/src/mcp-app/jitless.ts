// Imported first by the widget's script: zod generates no code under the
// page's CSP (no `new Function`, whose refusal the CSP would report). ext-apps'
// App sets this too, but only after the SDK's schemas, built on import, probed for it.
import { config } from "zod/v4";

config({ jitless: true });
