// Every workflow the worker runs; the worker bundles this file.
export * from './domainVerification';
export * from './routeEvent';
export * from './deliverEmail';
export * from './maintenance';
