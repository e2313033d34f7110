// Loads the WebAssembly UI (a file, not an inline script, so the CSP needs no exceptions).
import init from "./checkup_frontend.js";
init();
