// The few parts of Node.js this bot uses, declared here: the kit builds offline, with
// TypeScript's compiler alone (no @types/node to download).
declare const process: {
  stdin: unknown;
  stdout: { write(text: string): boolean };
};

declare module "node:readline" {
  interface Interface {
    on(event: "line", listener: (line: string) => void): this;
  }
  function createInterface(options: { input: unknown }): Interface;
}
