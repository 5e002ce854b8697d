/** Written at the end of a build, dated when the build started. */
export declare const BUILT_STAMP: string
/** The folders and files a build reads, relative to the project's root. */
export declare function buildInputs(root: string): string[]
/** Whether dist/ under `root` was built after every build input last changed. */
export declare function distIsFresh(root: string): boolean
