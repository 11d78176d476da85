export const COLLECTIONS_SERVICE = Symbol('CollectionsService');
