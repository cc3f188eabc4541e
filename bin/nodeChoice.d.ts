/** Types of bin/nodeChoice.js (plain JavaScript so that an old Node can load it). */
export declare const REQUIRED_MAJOR: number;
export declare const PINNED_PLATFORMS: readonly string[];
export type NodeChoice = { readonly run: 'here' } | { readonly run: 'pinned'; readonly binary: string } | { readonly error: string; readonly run?: undefined };
export declare const chooseNode: (version: string, platform: string, findPinned: (packageName: string) => string | undefined) => NodeChoice;
