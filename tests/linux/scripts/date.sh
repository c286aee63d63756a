# date formatting of fixed times (date -d @N, never the current time) in fixed time zones.
TZ=UTC0 date -d @0
TZ=UTC0 date -d @1000000000 '+%Y-%m-%d %H:%M:%S %Z %a %A %b %B %j %u %w %y %e %I %p %s'
TZ=UTC0 date -u -d @1234567890 '+%F %T %D %R %%'
TZ=EST5EDT,M3.2.0,M11.1.0 date -d @1000000000 '+%F %T %Z %z'
TZ=EST5EDT,M3.2.0,M11.1.0 date -d @1010000000 '+%F %T %Z %z'
TZ=CET-1CEST,M3.5.0,M10.5.0/3 date -d @1700000000 '+%c'
TZ=JST-9 date -d @86399 '+%H:%M:%S %d'
TZ=UTC0 date -d @-86400 '+%F'
TZ=UTC0 date -d '2001-09-09 01:46:40' '+%s'
TZ=UTC0 date -d @4102444800 '+%F %a'
TZ=UTC0 date -d @notanumber; echo "status $?"
