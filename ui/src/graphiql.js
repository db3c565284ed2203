// GraphiQL for development mode, bundled here so the page loads nothing from another host. The
// headers editor starts with the dashboard's token (same tab, same sessionStorage) when there is one.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { buildSchema } from 'graphql';
// The printed schema (a test keeps it equal to the served one) instead of GraphiQL's introspection
// query, which nests deeper than the API's depth limit allows.
import sdl from '../../schema.graphql';
import 'graphiql/graphiql.css';

const token = sessionStorage.getItem('kairos.token');
const url = `${location.origin}/graphql`;
const fetcher = createGraphiQLFetcher({ url, subscriptionUrl: url.replace(/^http/, 'ws') });
const headers = JSON.stringify({ authorization: `Bearer ${token ?? '<token printed by npm start>'}` }, null, 2);

document.getElementById('app').style.height = '100vh';
createRoot(document.getElementById('app')).render(
  createElement(GraphiQL, {
    fetcher,
    schema: buildSchema(sdl),
    defaultHeaders: headers,
    defaultEditorToolbarTabs: 'headers',
    shouldPersistHeaders: false,
    defaultQuery: '# Kairos GraphQL API. The Headers tab below carries your bearer token.\n{\n  viewer { tenantId role }\n  jobs(first: 5) { edges { node { name status nextRunAt } } }\n}\n',
  }),
);
