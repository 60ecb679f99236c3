// The few parts of Node.js this bot uses, declared here: the kit builds offline, with
// TypeScript's compiler alone (no @types/node to download).
declare class Buffer {
  readonly length: number;
  static alloc(size: number): Buffer;
  toString(encoding: "utf8", start: number, end: number): string;
}

declare module "node:fs" {
  function readSync(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: null,
  ): number;
  function writeSync(fd: number, text: string): number;
}
