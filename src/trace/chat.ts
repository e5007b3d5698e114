// The `chat` span is the model client's (src/model/chatSpan.ts): it annotates its own span, so the
// model code needs nothing from src/trace/.
export { chatAttributes, PROVIDER_NAME } from "../model/chatSpan.ts"
