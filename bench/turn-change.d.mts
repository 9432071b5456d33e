/** Types for turn-change.mjs (plain JavaScript, so the stand-in claude runs on bare node). */
export declare const EDITED_FILE: string;
export declare const BIG_BINARY: string;
export declare const MANY_EDITED: number;
export declare const MANY_ADDED: number;
export type TurnChangeKind = "small" | "many" | "binary" | "none";
export declare function applyTurnChange(root: string, n: number, kind: TurnChangeKind | string): void;
