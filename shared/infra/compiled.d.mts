/** Written at the end of a build, dated when the build started. */
export declare const BUILT_STAMP: string
/** Whether dist/ under `root` was built after every build input last changed. */
export declare function distIsFresh(root: string): boolean
/** Whether bin/shiplog.js runs dist/ (SHIPLOG_RUN_COMPILED, else the sources' absence or dist/'s freshness). */
export declare function runsCompiled(root: string, choice?: string): boolean
/** Runs the module at `path` from `root`: dist/'s JavaScript when runsCompiled, else the TypeScript source through tsx. */
export declare function importCompiledOrSource(root: string, path: string): Promise<unknown>
