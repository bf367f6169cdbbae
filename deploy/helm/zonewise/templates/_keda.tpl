{{/*
How KEDA reaches Redis, as a dict: cluster, address (host:port; a cluster's nodes, comma-separated), tls,
databaseIndex, and username and password when the chart derives them from secrets.REDIS_URL, read as the
apps read it (libs/queue redis-target.ts parseRedisUrl): redis[s]://[user[:password]@]host[:port][/db],
or redis[s]+cluster://[user[:password]@]host[:port][,host[:port]…] for a Redis Cluster; user and
password percent-decoded. worker.autoscaling.redis.* set what REDIS_URL does not say.
*/}}
{{- define "zonewise.kedaRedis" -}}
{{- $settings := .Values.worker.autoscaling.redis -}}
{{- $connection := dict "cluster" $settings.cluster "address" $settings.address "tls" $settings.tls "databaseIndex" (int $settings.databaseIndex) -}}
{{- $url := (include "zonewise.chartSecrets" . | fromYaml).REDIS_URL | default "" -}}
{{- if and $url (not .Values.existingSecret) -}}
{{- $pattern := `^(rediss?)(\+cluster)?://(?:(.*)@)?([^@/?#]+)(?:/([0-9]*))?(?:[?#].*)?$` -}}
{{- if not (regexMatch $pattern $url) -}}
{{- fail "secrets.REDIS_URL must be redis[s]://[user:password@]host[:port][/db] or redis[s]+cluster://[user:password@]host[:port][,host[:port]…]" -}}
{{- end -}}
{{- $scheme := regexReplaceAll $pattern $url "${1}" -}}
{{- $cluster := eq (regexReplaceAll $pattern $url "${2}") "+cluster" -}}
{{- $userinfo := regexReplaceAll $pattern $url "${3}" -}}
{{- $db := regexReplaceAll $pattern $url "${5}" -}}
{{- $nodes := list -}}
{{- range $node := splitList "," (regexReplaceAll $pattern $url "${4}") -}}
{{- if not (regexMatch ":[0-9]+$" $node) }}{{ $node = printf "%s:6379" $node }}{{ end -}}
{{- $nodes = append $nodes $node -}}
{{- end -}}
{{- $_ := set $connection "cluster" $cluster -}}
{{- if not $settings.address }}{{ $_ := set $connection "address" (join "," $nodes) }}{{ end -}}
{{- if eq $scheme "rediss" }}{{ $_ := set $connection "tls" true }}{{ end -}}
{{- if and $db (not $settings.databaseIndex) }}{{ $_ := set $connection "databaseIndex" (atoi $db) }}{{ end -}}
{{- if and $userinfo (not $settings.authSecret.name) -}}
{{- $user := regexReplaceAll "^([^:]*)(?::.*)?$" $userinfo "${1}" -}}
{{- $password := "" -}}
{{- if contains ":" $userinfo }}{{ $password = regexReplaceAll "^[^:]*:(.*)$" $userinfo "${1}" }}{{ end -}}
{{- $_ := set $connection "username" (include "zonewise.percentDecode" $user) -}}
{{- $_ := set $connection "password" (include "zonewise.percentDecode" $password) -}}
{{- end -}}
{{- end -}}
{{- toYaml $connection -}}
{{- end -}}

{{/* Percent-decodes the printable ASCII characters; anything else encoded stops the render. */}}
{{- define "zonewise.percentDecode" -}}
{{- $text := . -}}
{{- $escapes := list (list "%20" " ") (list "%21" "!") (list "%22" "\"") (list "%23" "#") (list "%24" "$")
   (list "%26" "&") (list "%27" "'") (list "%28" "(") (list "%29" ")") (list "%2A" "*") (list "%2B" "+")
   (list "%2C" ",") (list "%2D" "-") (list "%2E" ".") (list "%2F" "/") (list "%30" "0") (list "%31" "1")
   (list "%32" "2") (list "%33" "3") (list "%34" "4") (list "%35" "5") (list "%36" "6") (list "%37" "7")
   (list "%38" "8") (list "%39" "9") (list "%3A" ":") (list "%3B" ";") (list "%3C" "<") (list "%3D" "=")
   (list "%3E" ">") (list "%3F" "?") (list "%40" "@") (list "%41" "A") (list "%42" "B") (list "%43" "C")
   (list "%44" "D") (list "%45" "E") (list "%46" "F") (list "%47" "G") (list "%48" "H") (list "%49" "I")
   (list "%4A" "J") (list "%4B" "K") (list "%4C" "L") (list "%4D" "M") (list "%4E" "N") (list "%4F" "O")
   (list "%50" "P") (list "%51" "Q") (list "%52" "R") (list "%53" "S") (list "%54" "T") (list "%55" "U")
   (list "%56" "V") (list "%57" "W") (list "%58" "X") (list "%59" "Y") (list "%5A" "Z") (list "%5B" "[")
   (list "%5C" "\\") (list "%5D" "]") (list "%5E" "^") (list "%5F" "_") (list "%60" "`") (list "%61" "a")
   (list "%62" "b") (list "%63" "c") (list "%64" "d") (list "%65" "e") (list "%66" "f") (list "%67" "g")
   (list "%68" "h") (list "%69" "i") (list "%6A" "j") (list "%6B" "k") (list "%6C" "l") (list "%6D" "m")
   (list "%6E" "n") (list "%6F" "o") (list "%70" "p") (list "%71" "q") (list "%72" "r") (list "%73" "s")
   (list "%74" "t") (list "%75" "u") (list "%76" "v") (list "%77" "w") (list "%78" "x") (list "%79" "y")
   (list "%7A" "z") (list "%7B" "{") (list "%7C" "|") (list "%7D" "}") (list "%7E" "~") -}}
{{- range $escape := $escapes -}}
{{- $text = regexReplaceAllLiteral (printf "(?i)%s" (index $escape 0)) $text (index $escape 1) -}}
{{- end -}}
{{- if regexMatch "(?i)%(?:[013-9a-f][0-9a-f]|2[0-46-9a-f])" $text -}}
{{- fail "secrets.REDIS_URL's user or password holds encoded characters outside printable ASCII, which KEDA's credentials cannot be derived from: put them in a Secret and name it in worker.autoscaling.redis.authSecret" -}}
{{- end -}}
{{- regexReplaceAllLiteral "%25" $text "%" -}}
{{- end -}}
