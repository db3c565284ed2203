-- Gives every FerretDB table in this PostgreSQL database an index that serves `_id` look-ups.
-- FerretDB 1.24 pushes an `_id` equality down as `_jsonb -> '_id' @> $1`, which its own btree index
-- on `(_jsonb -> '_id')` cannot serve, so each by-id read and update scans the whole collection (37 ms
-- per statement at 50,000 documents here, 3 ms with this index). MongoDB answers by `_id` from its
-- index natively; this makes the local server behave alike. FerretDB does not know of the index
-- (it lists indexes from its own metadata) and drops it with the table. Run by scripts/services.sh
-- and scripts/chaos.sh with psql; idempotent.
create or replace function kairos_ferretdb_id_index(tbl regclass) returns void language plpgsql as $$
begin
  if exists (select 1 from pg_attribute where attrelid = tbl and attname = '_jsonb' and not attisdropped)
     and not exists (select 1 from pg_index i where i.indrelid = tbl and pg_get_indexdef(i.indexrelid) like '%USING gin%_id%jsonb_path_ops%') then
    execute format('create index on %s using gin ((_jsonb -> ''_id'') jsonb_path_ops)', tbl);
  end if;
end $$;

create or replace function kairos_ferretdb_id_index_on_create() returns event_trigger language plpgsql as $$
declare obj record;
begin
  for obj in select * from pg_event_trigger_ddl_commands() where command_tag = 'CREATE TABLE' and object_type = 'table' loop
    perform kairos_ferretdb_id_index(obj.objid::regclass);
  end loop;
end $$;

drop event trigger if exists kairos_ferretdb_id_index;
create event trigger kairos_ferretdb_id_index on ddl_command_end when tag in ('CREATE TABLE')
  execute function kairos_ferretdb_id_index_on_create();

-- Tables made before the trigger existed.
do $$
declare t regclass;
begin
  for t in select c.oid::regclass from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') loop
    perform kairos_ferretdb_id_index(t);
  end loop;
end $$;
