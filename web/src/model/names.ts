/** What people call a location: its name (`GET /locations` gives one beside the spec's fields), else its id. */
export const nameOf = (l: { readonly id: string; readonly name?: string }): string => l.name || l.id;
