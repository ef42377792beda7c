/** The Node-only part of the kit: ports and child-process runtimes. */
export { freePort } from './ports.ts';
export { bunBinary, denoBinary, denoPlatformPackage } from './runtimes.ts';
