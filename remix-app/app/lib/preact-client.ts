/**
 * With CAIRN_PREACT=1 the production client build runs on preact/compat instead of React (vite.config.ts,
 * ARCHITECTURE.md D24); the server and the dev server always run React. The few places where the two
 * differ read this flag.
 */
declare global {
  interface ImportMetaEnv {
    /** `true` in the production client build only (defined by vite.config.ts). */
    readonly CAIRN_PREACT?: boolean;
  }
}

export const PREACT_CLIENT: boolean = import.meta.env.CAIRN_PREACT === true;
