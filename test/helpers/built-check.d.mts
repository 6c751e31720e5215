export declare function builtIsCurrent(): boolean;
/** The build of a package's TypeScript source (<package>/src/x.ts → <package>/dist/x.js) when that file exists, else null. */
export function builtFile(file: string): string | null;
