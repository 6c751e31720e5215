export declare function builtIsCurrent(): boolean;
